// CommandLineKit — command-line options declared once (`@Option`, `@Flag`, `@Positionals`,
// `@OptionGroup`), with parsing, help text and validation derived from the declarations, in the
// shape of swift-argument-parser (which cannot be fetched here); `ExitCode` and `CommandExit`.
// May import: Foundation only.
