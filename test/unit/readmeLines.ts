// The shell lines of a Markdown file, as readme.test.ts and install.test.ts run them.

export interface Line {
  text: string;
  command: string;
  /** From a trailing "# exits N" comment; 0 without one. */
  status: number;
}

/** The lines of ```bash/```sh/```shell/```console blocks: the command is the line without its comment. */
export function shellLines(markdown: string): Line[] {
  const out: Line[] = [];
  for (const block of markdown.matchAll(/^```(?:bash|sh|shell|console)\n([\s\S]*?)^```/gm)) {
    for (const raw of block[1]!.split('\n')) {
      const text = raw.replace(/^\$ /, '').trimEnd();
      if (!text.trim() || text.trim().startsWith('#')) continue;
      const command = text.replace(/\s+#.*$/, '').trim();
      out.push({ text, command, status: Number(/#\s*exits (\d+)/.exec(text)?.[1] ?? 0) });
    }
  }
  return out;
}

/** The text of the section under `## heading`, up to the next heading of that level. */
export function section(markdown: string, heading: string): string {
  const at = markdown.indexOf(`\n## ${heading}\n`);
  if (at < 0) throw new Error(`no "## ${heading}" section`);
  const next = markdown.indexOf('\n## ', at + heading.length + 4);
  return markdown.slice(at, next < 0 ? undefined : next);
}

/** The README section whose every shell line install.test.ts runs, from an empty folder. */
export const INSTALL_SECTION = 'Install';
