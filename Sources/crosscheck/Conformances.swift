import CommandLineKit
import Conformance
import Frames
import Remote
import WireCrypto
import WireProtocol

// The names other modules define, readable as command-line values.
extension PlantedFlaw: ExpressibleByArgument {}
extension FrameFamily: ExpressibleByArgument {}
extension KeyDerivationMode: ExpressibleByArgument {}
extension RemoteOptions.Profile: ExpressibleByArgument {}
extension Framing: ExpressibleByArgument {}
extension RSARejection: ExpressibleByArgument {}
