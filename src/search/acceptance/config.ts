// Apart from the registry because the library's SearchConfig type is built from it: its declarations must reach no
// store or database type (test/api/package.e2e.test.ts).

/** A rule's config as the schema parsed it: `rule` names the module (src/search/acceptance), the others are its own. */
export type AcceptanceConfig = { rule: string } & Record<string, unknown>;
