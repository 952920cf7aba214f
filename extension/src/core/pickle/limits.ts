/**
 * Hard limits for the reader. The defaults admit multi-GB snapshots from long runs while keeping a
 * hostile file from exhausting memory or the stack of anything that walks the result.
 */
export interface PickleLimits {
  /** Deepest container nesting. A 2.11 snapshot nests 6 deep; 64 leaves room for odd producers. */
  maxDepth: number;
  /** Most items in one list, set or tuple. */
  maxContainerItems: number;
  /** Longest str or bytes value (bytes). C++ frame names reach a few KB. */
  maxStringBytes: number;
  /** Budget of "cells": one per value created and one per item inserted into a container. */
  maxCells: number;
  /** Most values on the VM stack at once (pickles made by CPython batch 1000 items). */
  maxStack: number;
  /** Highest memo index accepted (CPython numbers them 0, 1, 2, … in order). */
  maxMemo: number;
}

export const DEFAULT_LIMITS: Readonly<PickleLimits> = Object.freeze({
  maxDepth: 64,
  maxContainerItems: 50_000_000,
  maxStringBytes: 64 * 1024 * 1024,
  maxCells: 400_000_000,
  maxStack: 10_000_000,
  maxMemo: 400_000_000,
});

export function resolveLimits(partial?: Partial<PickleLimits>): PickleLimits {
  const limits = { ...DEFAULT_LIMITS, ...partial };
  // Depths are stored in bytes.
  limits.maxDepth = Math.min(limits.maxDepth, 255);
  return limits;
}
