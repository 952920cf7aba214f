import { HR001 } from './hr001';
import { HR002 } from './hr002';
import { HR003 } from './hr003';
import { HR004 } from './hr004';
import { HR005 } from './hr005';
import { HR006 } from './hr006';
import { HR007 } from './hr007';
import { HR008 } from './hr008';
import { HR009 } from './hr009';
import { HR010 } from './hr010';
import { HR011 } from './hr011';
import { HR012 } from './hr012';
import { HR013 } from './hr013';
import { HR014 } from './hr014';
import { HR015 } from './hr015';
import { HR016 } from './hr016';
import { HR017 } from './hr017';
import { HR018 } from './hr018';
import type { RuleDef } from './rule';

/** Every rule, in the order they run: a new rule is its file and a line here (docs/adding-a-rule.md). */
export const RULE_LIST: readonly RuleDef[] = [
  HR001,
  HR002,
  HR003,
  HR004,
  HR005,
  HR006,
  HR007,
  HR008,
  HR009,
  HR010,
  HR011,
  HR012,
  HR013,
  HR014,
  HR015,
  HR016,
  HR017,
  HR018,
];
