import type { ESLint, Linter } from 'eslint';

/** The flat-config blocks that turn the conventions on (eslint.config.mjs spreads them). */
export const conventionBlocks: Linter.Config[];
declare const conventions: ESLint.Plugin;
export default conventions;
