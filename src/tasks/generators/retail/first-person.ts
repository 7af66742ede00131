/**
 * The customer's opening message, written from a τ² scenario (second person: "You received your order …") as the
 * customer would say it ("Hi, I'm Yusuf Rossi, zip code 19122. I received my order …"). Deterministic text rules, no
 * model: what the agent reads is the same on every run.
 */

/** Words after which "you" is an object ("send it to you" → "send it to me"). */
const OBJECT_CONTEXT = new Set([
  "to",
  "for",
  "with",
  "from",
  "at",
  "about",
  "by",
  "help",
  "give",
  "gives",
  "tell",
  "tells",
  "ask",
  "asks",
  "let",
  "lets",
  "send",
  "sent",
  "call",
  "show",
  "offer",
  "remind",
  "thank",
]);

/** Words that follow an object "you" but never a subject one ("saves you most money"). */
const OBJECT_FOLLOWERS = new Set([
  "most",
  "more",
  "the",
  "a",
  "an",
  "some",
  "any",
  "money",
  "back",
  "it",
  "them",
  "this",
]);

const CONTRACTIONS: Record<string, string> = {
  "you're": "I'm",
  "you've": "I've",
  "you'd": "I'd",
  "you'll": "I'll",
  "you are": "I am",
  "you were": "I was",
  yourself: "myself",
  yours: "mine",
  your: "my",
};

/** Rewrite second-person text to first person ("You want to return your lamp" → "I want to return my lamp"). */
export function toFirstPerson(text: string): string {
  const pattern = /\b(you're|you've|you'd|you'll|you are|you were|yourself|yours|your|you)\b/gi;
  return text.replace(pattern, (match: string, _word: string, offset: number) => {
    const lower = match.toLowerCase();
    const fixed = CONTRACTIONS[lower];
    if (fixed !== undefined) return matchCase(fixed, match, offset, text);
    const before = text.slice(0, offset);
    const previous = /([A-Za-z']+)\W*$/.exec(before)?.[1]?.toLowerCase();
    const next = /^\W*([A-Za-z']+)/.exec(text.slice(offset + match.length))?.[1]?.toLowerCase();
    const afterVerb = previous !== undefined && OBJECT_CONTEXT.has(previous) && !/[.!?;:]\s*$/.test(before);
    return afterVerb || (next !== undefined && OBJECT_FOLLOWERS.has(next)) ? "me" : "I";
  });
}

/** "I…" stays capital; "my"/"mine"/"myself" take the capital of a sentence start. */
function matchCase(replacement: string, original: string, offset: number, text: string): string {
  if (replacement.startsWith("I")) return replacement;
  const startsSentence = offset === 0 || /[.!?]\s*$/.test(text.slice(0, offset));
  const capital = startsSentence || original[0] === original[0]?.toUpperCase();
  return capital ? replacement[0]?.toUpperCase() + replacement.slice(1) : replacement;
}

/**
 * Sentences that steer the simulated customer ("If the agent asks for confirmation, …") rather than state the request:
 * never part of the opening message.
 */
const DIRECTIVE =
  /\b(reveal|mention|swear|when asked|if asked|do not end|confirmation|confirm|agent asks|asks you|asks for)\b|^\s*(but\s+)?(when|once)\b/i;

/** A sentence that only makes sense after the one before it ("If that is not possible, …"). */
const FOLLOW_UP = /^\s*(if (that|not|this|it|so)\b|otherwise\b)/i;

/** Parenthetical asides for the simulator ("(but do not reveal it to the agent)"). */
const DIRECTIVE_ASIDE = /\s*\([^()]*\b(reveal|agent|mention)\b[^()]*\)/gi;

export function splitSentences(text: string): string[] {
  return text
    .replace(/\s+/g, " ")
    .split(/(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => /[A-Za-z0-9]/.test(sentence))
    .map((sentence) => sentence.replace(/^[.\s]+/, ""));
}

/**
 * The request part of a τ² reason_for_call, in first person, addressed to the agent ("if the agent can help you" → "if
 * you can help me").
 */
export function requestFromReason(reasonForCall: string): string {
  const sentences = splitSentences(
    reasonForCall.replace(DIRECTIVE_ASIDE, "").replace(/(?<!\.)\.\.(?!\.)/g, "."),
  );
  const kept: string[] = [];
  let droppedPrevious = false;
  for (const sentence of sentences) {
    droppedPrevious = DIRECTIVE.test(sentence) || (droppedPrevious && FOLLOW_UP.test(sentence));
    if (!droppedPrevious) kept.push(sentence);
  }
  // Every τ² reason starts with the request itself; keep it even if it reads like a directive.
  const chosen = kept.length > 0 ? kept : sentences.slice(0, 1);
  return chosen.map(firstPersonSentence).join(" ");
}

function firstPersonSentence(sentence: string): string {
  const spoken = toFirstPerson(sentence)
    .replace(/^ask the agent (?:explicitly )?to /i, "Please ")
    .replace(/^ask the agent (about|if|how|what|whether|for|which) /i, "I'd also like to know $1 ")
    .replace(/, ask the agent (?:explicitly )?to /gi, ", please ")
    .replace(/, ask the agent (about|if|how|what|whether|which) /gi, ", tell me $1 ")
    .replace(/\bthe agent's\b/gi, "your")
    .replace(/\bthe agent\b/gi, "you")
    .replace(/\b(I\b[^.!?]*?\b(?:and|but)) are\b/g, "$1 am");
  const ended = /[.!?;:)'"}]$/.test(spoken) ? spoken : `${spoken}.`;
  return capitalise(ended);
}

export interface CustomerIdentity {
  name?: string;
  userId?: string;
  emails: string[];
  zip?: string;
}

const NAME_PATTERNS = [
  /\bname is ([A-Z][a-z]+(?: [A-Z][a-z]+)*)/,
  /\bcalled ([A-Z][a-z]+(?: [A-Z][a-z]+)*)/,
  /\b(?:You are|You're) ([A-Z][a-z]+(?: [A-Z][a-z]+)*)/,
];

/** What the customer can say about who they are, read from τ² known_info. */
export function identityFromKnownInfo(knownInfo: string): CustomerIdentity {
  let name: string | undefined;
  for (const pattern of NAME_PATTERNS) {
    name = pattern.exec(knownInfo)?.[1];
    if (name !== undefined) break;
  }
  const userId = /\b[a-z]+_[a-z]+_\d+\b/.exec(knownInfo)?.[0];
  const emails = [...knownInfo.matchAll(/[A-Za-z0-9._+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g)].map(
    (m) => m[0],
  );
  const zip = /\b\d{5}\b/.exec(knownInfo)?.[0];
  return { name, userId, emails, zip };
}

/** "Hi, I'm Yusuf Rossi, zip code 19122." — null when the identity has nothing to say. */
export function greeting(identity: CustomerIdentity): string | null {
  const details: string[] = [];
  if (identity.name !== undefined && identity.userId !== undefined)
    details.push(`user id ${identity.userId}`);
  if (identity.emails.length > 0) details.push(`email ${identity.emails.join(" or ")}`);
  if (identity.zip !== undefined) details.push(`zip code ${identity.zip}`);
  if (identity.name !== undefined) return `Hi, I'm ${[identity.name, ...details].join(", ")}.`;
  if (identity.userId !== undefined) return `Hi, my user id is ${[identity.userId, ...details].join(", ")}.`;
  if (details.length > 0) return `Hi, my ${details.join(", ")}.`;
  return null;
}

function capitalise(text: string): string {
  return text.length === 0 ? text : text[0]?.toUpperCase() + text.slice(1);
}
