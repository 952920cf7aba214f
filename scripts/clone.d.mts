export const ROOT: string;
export function freshClone(opts?: { worktree?: boolean }): { outer: string; clone: string; remove: () => void };
export function cloneEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
