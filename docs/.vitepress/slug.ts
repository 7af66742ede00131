/**
 * Heading anchors as GitHub makes them (lower case, punctuation dropped, spaces as hyphens), so a link such as
 * `DESIGN.md#3-formats` works both on GitHub and on the site; the link test uses the same function.
 */
export function slugify(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
    .replace(/ /g, "-");
}
