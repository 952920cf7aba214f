// A family of hostile inputs whose cost must grow with their size, not faster (issue 39). Each
// family writes its input at size n and says how the CLI reads it; test/unit/cost.test.ts runs every
// family at two CI sizes and checks the growth, `npm run cost` runs them at full size for time and
// memory. Generators are our own: written from the shape of the attack, never copied.

export interface CostCase {
  /** The CLI's arguments (after `node dist/cli.js`). */
  argv: string[];
  /** A file given as standard input. */
  stdin?: string;
}

export interface CostFamily {
  /** Short and unique: `backward-node-name`, `leak-alternating-lines`… */
  name: string;
  /** What grows with n, for the report ("frames of 1,000 characters per MB"). */
  unit: string;
  /** Writes the input of size n under `dir` (a fresh folder) and returns how the CLI reads it. */
  make(dir: string, n: number): CostCase;
  /** CI size: n and 4·n each run well under a few seconds on a 2-core machine at linear cost. */
  small: number;
  /** The size the issue names (or the largest such input), for `npm run cost`. */
  full: number;
}
