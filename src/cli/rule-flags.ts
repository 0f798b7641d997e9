import type { Command } from 'commander';
import { COERCION_MODES, type CoercionMode } from '../simulator/lax.js';
import { UNKNOWN_ARGUMENTS_MODES, type UnknownArgumentsMode } from '../simulator/unknown-arguments.js';
import { UsageError } from '../terminal/errors.js';

export interface RuleFlags {
  unknownArguments: string;
  coercion: string;
}

/** `--unknown-arguments` and `--coercion`: how the Rule layer treats undeclared names and wrongly typed values. */
export function addRuleOptions(command: Command): Command {
  return command
    .option('--unknown-arguments <mode>', `an argument the tool does not declare: ${UNKNOWN_ARGUMENTS_MODES.join(' (a 400 naming it) or ')} (dropped, said in x-toolenv-ignored)`, 'reject')
    .option('--coercion <mode>', `a value of the wrong JSON type: ${COERCION_MODES.join(' (a 400) or ')} (numeric and boolean strings, one-element arrays coerced, said in x-toolenv-coerced)`, 'strict');
}

export function ruleOptions(flags: RuleFlags): { unknownArguments: UnknownArgumentsMode; coercion: CoercionMode } {
  if (!UNKNOWN_ARGUMENTS_MODES.includes(flags.unknownArguments as UnknownArgumentsMode)) {
    throw new UsageError(`--unknown-arguments must be one of ${UNKNOWN_ARGUMENTS_MODES.join(', ')}, got ${JSON.stringify(flags.unknownArguments)}`);
  }
  if (!COERCION_MODES.includes(flags.coercion as CoercionMode)) {
    throw new UsageError(`--coercion must be one of ${COERCION_MODES.join(', ')}, got ${JSON.stringify(flags.coercion)}`);
  }
  return { unknownArguments: flags.unknownArguments as UnknownArgumentsMode, coercion: flags.coercion as CoercionMode };
}
