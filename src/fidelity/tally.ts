/** The counts a fidelity run keeps, and the rates its summary reports. */

/** The response sources the report has columns for: spec examples, the synthesizer, a model, a real API. */
export const SUCCESS_SOURCES = ['example', 'synth', 'model', 'real'] as const;
export type SuccessSource = (typeof SUCCESS_SOURCES)[number];
/** Error bodies also come from the Rule layer. */
export const ERROR_SOURCES = [...SUCCESS_SOURCES, 'rule'] as const;
export type ErrorSource = (typeof ERROR_SOURCES)[number];

export interface SuccessTally {
  answers: number;
  schema_checked: number;
  schema_valid: number;
  schema_uncompiled: number;
  /** Answers with at least one request value to compare. */
  consistency_answers: number;
  consistency_checks: number;
  consistency_consistent: number;
  plausibility_applicable: number;
  plausibility_passed: number;
}

export interface ErrorTally {
  calls: number;
  /**
   * Calls whose body carries the Rule layer's reason (the problem's `detail`) in any member: the agent is still told
   * what was wrong.
   */
  reason_carried: number;
  /** Calls whose status the operation declares a response for (its code, 4XX or default). */
  declared: number;
  /** … with a JSON body schema. */
  with_schema: number;
  conforming: number;
  /**
   * Top-level properties the declared schema names, and how many of them the body has: most declared error
   * schemas require nothing, so validity alone says little about the shape.
   */
  schema_fields: number;
  fields_present: number;
}

export const successTally = (): SuccessTally => ({
  answers: 0,
  schema_checked: 0,
  schema_valid: 0,
  schema_uncompiled: 0,
  consistency_answers: 0,
  consistency_checks: 0,
  consistency_consistent: 0,
  plausibility_applicable: 0,
  plausibility_passed: 0,
});

export const errorTally = (): ErrorTally => ({
  calls: 0,
  reason_carried: 0,
  declared: 0,
  with_schema: 0,
  conforming: 0,
  schema_fields: 0,
  fields_present: 0,
});

export function addInto<T extends object>(into: T, from: T): void {
  for (const key of Object.keys(from) as (keyof T)[]) (into[key] as number) += from[key] as number;
}

/** A share rounded to four places; null when nothing was measured (a 0 would read as a measured failure). */
export function rate(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000;
}

export interface SuccessSummary {
  answers: number;
  schema_validity: { checked: number; valid: number; uncompiled: number; rate: number | null };
  request_consistency: { answers_checkable: number; checks: number; consistent: number; rate: number | null };
  plausibility: { applicable: number; passed: number; rate: number | null };
}

export function summarizeSuccess(t: SuccessTally): SuccessSummary {
  return {
    answers: t.answers,
    schema_validity: {
      checked: t.schema_checked,
      valid: t.schema_valid,
      uncompiled: t.schema_uncompiled,
      rate: rate(t.schema_valid, t.schema_checked),
    },
    request_consistency: {
      answers_checkable: t.consistency_answers,
      checks: t.consistency_checks,
      consistent: t.consistency_consistent,
      rate: rate(t.consistency_consistent, t.consistency_checks),
    },
    plausibility: {
      applicable: t.plausibility_applicable,
      passed: t.plausibility_passed,
      rate: rate(t.plausibility_passed, t.plausibility_applicable),
    },
  };
}

export interface ErrorSummary extends ErrorTally {
  rate: number | null;
  fields_rate: number | null;
  reason_rate: number | null;
}

export const summarizeError = (t: ErrorTally): ErrorSummary => ({
  ...t,
  rate: rate(t.conforming, t.with_schema),
  fields_rate: rate(t.fields_present, t.schema_fields),
  reason_rate: rate(t.reason_carried, t.calls),
});
