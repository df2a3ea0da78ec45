// Reports — JUnit XML (built with XMLDocument, schema-valid, written atomically, merged), terminal
// summaries. Knows nothing of checks: the CLI turns results into `JUnitReport`s.
// May import: Foundation (and FoundationXML) only.
