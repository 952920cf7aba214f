import { fileURLToPath } from 'node:url';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Roots } from '../core/tools/roots';
import { ToolInputError } from '../core/tools/types';

/** A root's folder: file: URIs only (a client may list others; Headroom reads local files). */
function folderOf(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The folders the tools may read: the client's roots (roots/list, asked again after
 * notifications/roots/list_changed) when it declares the roots capability, else the server's
 * working directory.
 */
export class ClientRoots {
  private asked: Promise<Roots> | undefined;

  constructor(
    private readonly server: Server,
    private readonly cwd: string,
  ) {
    server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
      this.asked = undefined;
    });
  }

  current(): Promise<Roots> {
    if (!this.server.getClientCapabilities()?.roots) return Promise.resolve({ folders: [this.cwd], from: 'cwd' });
    const asked = (this.asked ??= this.server.listRoots().then(
      (r) => ({ folders: r.roots.flatMap((x) => folderOf(x.uri) ?? []), from: 'client' as const }),
      (e: unknown) => {
        // Asked again at the next call; this one reads nothing.
        if (this.asked === asked) this.asked = undefined;
        throw new ToolInputError(`could not get the client's roots (the folders Headroom may read): ${(e as Error).message}`);
      },
    ));
    return asked;
  }
}
