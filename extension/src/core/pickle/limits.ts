import type { Limits } from '../limits';

/**
 * The reader takes the whole policy (core/limits.ts): it enforces the pickle-level limits and
 * hands the rest to the snapshot builder. This alias and re-export keep the reader's imports local.
 */
export type PickleLimits = Limits;
export { resolveLimits } from '../limits';
