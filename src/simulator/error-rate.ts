/**
 * The paper's rate of injected failures (§3.4: rate limits, network failures…); apart from the injector so that the CLI
 * can show it without loading it.
 */
export const DEFAULT_ERROR_RATE = 0.05;
