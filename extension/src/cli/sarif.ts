import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RULES } from '../core/lint/lint';
import type { RuleId, Severity } from '../core/lint/types';
import type { LintedFile } from './lintOutput';
import { VERSION } from './version';
import { jsonText } from '../shared/text';

const SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };

/**
 * The rule pages (docs/rules/HRnnn.md) ship beside the bundle (dist/../docs) and sit at the
 * repository's root when run from source. The project has no public URL yet: SARIF wants absolute
 * URIs, so the pages are named by file URI.
 */
function docsDir(): string | undefined {
  return [join(__dirname, '..', 'docs'), resolve(__dirname, '..', '..', '..', 'docs')].find((d) => existsSync(join(d, 'rules')));
}

/** A path as a URI reference: relative ones percent-encoded segment by segment, absolute ones as file URIs. */
function artifactUri(file: string): { uri: string; uriBaseId?: string } {
  if (isAbsolute(file)) return { uri: pathToFileURL(file).href };
  return { uri: file.split(sep).map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
}

/** SARIF 2.1.0 for code scanning: one run, every rule linted for, 1-based regions (end column exclusive). */
export function formatLintSarif(files: readonly LintedFile[], rules: readonly RuleId[], cwd: string = process.cwd()): string {
  const docs = docsDir();
  const index = new Map(rules.map((id, i) => [id, i]));
  const results = files.flatMap((f) =>
    f.findings.map((x) => ({
      ruleId: x.rule,
      ...(index.has(x.rule) ? { ruleIndex: index.get(x.rule)! } : {}),
      level: LEVEL[x.severity],
      message: { text: x.message },
      locations: [
        {
          physicalLocation: {
            artifactLocation: artifactUri(f.file),
            region: { startLine: x.start.line + 1, startColumn: x.start.col + 1, endLine: x.end.line + 1, endColumn: x.end.col + 1 },
          },
        },
      ],
    })),
  );
  const broken = files.filter((f) => f.broken);
  const log = {
    version: '2.1.0',
    $schema: SCHEMA,
    runs: [
      {
        tool: {
          driver: {
            name: 'Headroom',
            version: VERSION,
            informationUri: pathToFileURL(docs ? join(docs, 'rules') : cwd).href + '/',
            rules: rules.map((id) => ({
              id,
              name: RULES[id].name,
              shortDescription: { text: RULES[id].name.replace(/-/g, ' ') },
              ...(docs ? { helpUri: pathToFileURL(join(docs, 'rules', `${id}.md`)).href } : {}),
            })),
          },
        },
        originalUriBaseIds: { '%SRCROOT%': { uri: pathToFileURL(cwd).href.replace(/\/?$/, '/') } },
        columnKind: 'utf16CodeUnits',
        invocations: [
          {
            executionSuccessful: true,
            toolExecutionNotifications: broken.map((f) => ({
              level: 'warning',
              message: { text: 'the file has syntax errors: findings in the broken parts may be missing' },
              locations: [{ physicalLocation: { artifactLocation: artifactUri(f.file) } }],
            })),
          },
        ],
        results,
      },
    ],
  };
  return jsonText(log) + '\n';
}
