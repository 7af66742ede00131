import { type Paint, wrapLine } from "./table";

/**
 * A diff fitted to `width`: a longer line goes on under its own sign, each further line marked `↪` (the harness
 * files hold prose lines of a hundred and more characters). Without a width (piped) the diff is as git prints it.
 */
export function fitDiff(text: string, width: number | undefined): string {
  if (width === undefined) return text;
  return text
    .split("\n")
    .flatMap((line) => {
      const sign = /^[-+ ]/.test(line) && !/^(\+\+\+|---) /.test(line) ? (line[0] as string) : "";
      return wrapLine(line.slice(sign.length), width - sign.length, { indent: "↪ " }).map(
        (part) => sign + part,
      );
    })
    .join("\n");
}

/** A unified diff with added lines painted good and removed ones bad (headers left plain). */
export function colourDiff(text: string, paint: Paint): string {
  return text
    .split("\n")
    .map((line) =>
      line.startsWith("+") && !line.startsWith("+++")
        ? paint.good(line)
        : line.startsWith("-") && !line.startsWith("---")
          ? paint.bad(line)
          : line,
    )
    .join("\n");
}
