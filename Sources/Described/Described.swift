// Described: every check on a protocol a team describes in one file (docs/PROTOCOL-DESCRIPTIONS.md).
//
// May import: Conformance, WireCrypto, WireProtocol (the Swift engine, `ProtocolDescription` and
// `DescribedParty`), Transport, PythonBridge (PythonRef's engine, `pythonref.described`).
//
// Parties/  one conversation's two sides, from either engine, behind `ConversationParty`, and the
//           pump that lets them talk in this process (`Conversing`).
// Suite     `crosscheck run --protocol FILE`: every client × server pairing of the two engines,
//           in process and over loopback, and the refusals both must agree on.
// Remote/   `crosscheck remote --protocol FILE` (and `run --server … --protocol FILE`): a live
//           server driven by the Swift engine, with refusal probes and audits on its RSA and CBC steps.
