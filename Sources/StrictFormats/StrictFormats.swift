// StrictFormats — the protocol's text formats read the one strict way both sides must agree on:
// standard base64 with required padding and nothing else (`StrictBase64`), hex digits (`HexDigit`), and JSON as RFC 8259
// says with the protocol's rules for duplicate members, nesting and escapes (`StrictJSON`,
// `JSONValue`). Pure Swift over Foundation, no crypto: WireCrypto reads envelopes and PEM bodies
// with it, WireProtocol and the suites read messages with it.
// May import: Foundation only.
