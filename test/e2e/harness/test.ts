import { it } from 'node:test';
import type { Session } from './session';

/**
 * An end-to-end test step against a shared session: on failure it saves a screenshot and the logs
 * under test/e2e/artifacts/ before failing.
 */
export function e2e(name: string, session: () => Session, fn: (s: Session) => Promise<void>): void {
  it(name, async () => {
    const s = session();
    try {
      await fn(s);
    } catch (e) {
      const dir = await s.saveArtifacts(name);
      const digest = await s.digest().catch((d: unknown) => `(no digest: ${String(d)})`);
      (e as Error).message += `\n(screenshot and logs: ${dir})\n${digest}`;
      throw e;
    }
  });
}
