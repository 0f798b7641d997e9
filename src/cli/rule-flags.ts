import type { Command } from 'commander';
import { COERCION_MODES, type CoercionMode } from '../simulator/lax.js';
import { UNKNOWN_ARGUMENTS_MODES, type UnknownArgumentsMode } from '../simulator/unknown-arguments.js';
import { choiceFlag } from './output.js';

export interface RuleFlags {
  unknownArguments: string;
  coercion: string;
}

/** `--unknown-arguments` and `--coercion`: how the Rule layer treats undeclared names and wrongly typed values. */
export function addRuleOptions(command: Command): Command {
  return command
    .option(
      '--unknown-arguments <mode>',
      'an argument the tool does not declare: ' +
        `${UNKNOWN_ARGUMENTS_MODES.join(' (a 400 naming it) or ')} (dropped, said in x-toolenv-ignored)`,
      'reject',
    )
    .option(
      '--coercion <mode>',
      `a value of the wrong JSON type: ${COERCION_MODES.join(' (a 400) or ')} (numeric and boolean strings, ` +
        'one-element arrays coerced, said in x-toolenv-coerced)',
      'strict',
    );
}

export function ruleOptions(flags: RuleFlags): { unknownArguments: UnknownArgumentsMode; coercion: CoercionMode } {
  return {
    unknownArguments: choiceFlag('--unknown-arguments', flags.unknownArguments, UNKNOWN_ARGUMENTS_MODES),
    coercion: choiceFlag('--coercion', flags.coercion, COERCION_MODES),
  };
}
