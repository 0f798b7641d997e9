/** Operations the default library keeps; apart from the builder so that `library build --help` needs no converter. */
export const DEFAULT_SIZE = 50_011;
