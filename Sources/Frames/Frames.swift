// Frames — malformed input, made reproducibly from a seed: every frame family of docs/PROTOCOL.md
// (`FrameFamily`), structured mutators per family, byte mutation of the seed corpus in
// Vectors/frames/ (`FuzzCorpus`), and `FrameGenerator`, which makes frame number N of a run from the
// seed alone. Pure: no implementation is called here.
// May import: Conformance (the core), WireCrypto, WireProtocol.
