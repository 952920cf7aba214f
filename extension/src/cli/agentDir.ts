import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The Python agent's folder (what goes on PYTHONPATH): beside the bundle in a build or VSIX
 * (dist/../extension/agent), or in the source tree when run from source. HEADROOM_AGENT_DIR
 * overrides both (a bundle carried to a GPU host).
 */
export function agentDir(): string {
  const env = process.env.HEADROOM_AGENT_DIR;
  if (env) return env;
  const candidates = [join(__dirname, '..', 'extension', 'agent'), join(__dirname, '..', '..', 'agent')];
  const found = candidates.find((d) => existsSync(join(d, 'headroom_agent', '__init__.py')));
  if (!found) throw new Error(`the Headroom agent is missing (looked in ${candidates.join(', ')})`);
  return found;
}
