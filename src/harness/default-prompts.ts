/**
 * The prompts a harness uses when it has no prompts/<name>.md of its own. Each is sent verbatim (no placeholders),
 * so none can carry task data.
 */
export const DEFAULT_PROMPTS = {
  continue:
    "You did not call a tool. If the task is finished, or you will not do it, say so in one final message; " +
    "otherwise continue by calling a tool.",
  "self-check":
    "Before you finish, check your work once. If something blocks the request, stop now with the certified deferral " +
    "and say why; if you made a mistake you can still fix, fix it; otherwise confirm you are done.",
  report:
    'End with your structured report: call submit_report with status "done", or "blocked" with the blocker.',
} as const;
