// Seed 002's trust manager, "@implementation SSLTrustManager" (Objective-C, lines 42–66 of
// 002_7f1f2688a08b849f.txt; Extracts/seed002-SSLTrustManager.m.txt), ported line by line to Swift.
// EXTRACT: seed002-SSLTrustManager.m.txt FROM LINE 42
// MODE: port
// Each Objective-C line is one Swift line below, in the same order, except the three CFRelease
// lines, which ARC makes unnecessary. Tests/SeedAppsTests/VerbatimTests.swift checks that every
// line not kept verbatim is listed here. Behaviour is kept, with two exceptions forced by Swift:
// where the Objective-C code would crash (no bundled file, or one that is not a DER certificate:
// CFRelease(NULL)), the port refuses the server instead, which is the outcome the crash has for
// the connection; and `trustResult` starts as .invalid where Objective-C leaves it uninitialised
// (read only if SecTrustEvaluate fails, so a refusal either way).
// PORTED L42: @implementation → a Swift class (NSObject subclass, as an Objective-C class is).
// PORTED L43: the class method in Swift syntax; SecTrustRef is SecTrust, NSString* is String.
// PORTED L45: [[NSBundle mainBundle] pathForResource:ofType:] → bundle.path(forResource:ofType:); `bundle` is Bundle.main unless a harness points it at the directory that holds the pin (GLUE below); a missing file refuses.
// PORTED L46: [[NSData alloc] initWithContentsOfFile:] → NSData(contentsOfFile:).
// PORTED L47: the __bridge_retained cast → `as CFData`.
// PORTED L48: NULL allocator → nil; a file that is not a DER certificate refuses.
// PORTED L51: CFArrayCreate of one certificate → `[cert] as CFArray`.
// PORTED L52: the same call without the semicolon.
// PORTED L55: a declaration needs an initial value in Swift: .invalid.
// PORTED L56: the same call without the semicolon.
// PORTED L59-L61: CFRelease ×3 → nothing (ARC releases them); kept as comments.
// PORTED L64: kSecTrustResultUnspecified → .unspecified.
// PORTED L66: @end → the closing brace of the class.
// ---- end of header ----
import Foundation
import Security

class SSLTrustManager: NSObject {
static var bundle = Bundle.main // GLUE: where the app's bundled certificate is looked up
class func shouldTrustServerTrust(_ serverTrust: SecTrust, forCert certName: String) -> Bool {
// Load up the bundled certificate.
guard let certPath = bundle.path(forResource: certName, ofType: "der") else { return false }
guard let certData = NSData(contentsOfFile: certPath) else { return false }
let certDataRef = certData as CFData
guard let cert = SecCertificateCreateWithData(nil, certDataRef) else { return false }

// Establish a chain of trust anchored on our bundled certificate.
let certArrayRef = [cert] as CFArray
SecTrustSetAnchorCertificates(serverTrust, certArrayRef)

// Verify that trust.
var trustResult = SecTrustResultType.invalid
SecTrustEvaluate(serverTrust, &trustResult)

// Clean up.
// CFRelease(certArrayRef), CFRelease(cert), CFRelease(certDataRef): ARC releases them.

// Did our custom trust chain evaluate successfully?
return trustResult == .unspecified
}
}
