// The adapter for seed 002 (not seed code): hands the app's URLSession delegate a server-trust
// challenge as iOS would (a SecTrust with the SSL policy for the host, over the chain the server
// sent), with the pin bundled as Server_Public_SSL_Cert.der the way the app bundles it.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Security
import AppUnderTest

public final class Seed002Adapter: AppUnderTest, CertificatePinning {
    public let identifier = "seed-002"
    public let summary = "seed 002: URLSession server-trust delegate pinning one bundled DER certificate (Objective-C trust manager, ported)"

    public init() {}

    public func evaluateServerTrust(chainDER: [Data], host: String, pinnedCertificateDER: Data) throws -> Bool {
        let bundleDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("seed002-bundle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: bundleDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: bundleDirectory) }
        try pinnedCertificateDER.write(to: bundleDirectory.appendingPathComponent("Server_Public_SSL_Cert.der"))
        guard let bundle = Bundle(path: bundleDirectory.path) else { throw AppFailure("bundle", "cannot open \(bundleDirectory.path) as a bundle") }

        var certificates: [SecCertificate] = []
        for (index, der) in chainDER.enumerated() {
            guard let certificate = SecCertificateCreateWithData(nil, der as CFData) else {
                throw AppFailure("chain", "certificate \(index) the server sent is not DER X.509")
            }
            certificates.append(certificate)
        }
        var trust: SecTrust?
        guard SecTrustCreateWithCertificates(certificates as CFArray, SecPolicyCreateSSL(true, host as CFString), &trust) == errSecSuccess,
              let trust else {
            throw AppFailure("trust", "SecTrustCreateWithCertificates refused the chain")
        }
        let space = URLProtectionSpace.serverTrustProtectionSpace(host: host, port: 443, trust: trust)
        let sender = RecordingSender()
        let challenge = URLAuthenticationChallenge(protectionSpace: space, proposedCredential: nil, previousFailureCount: 0,
                                                   failureResponse: nil, error: nil, sender: sender)
        var disposition: URLSession.AuthChallengeDisposition?
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        SSLTrustManager.bundle = bundle
        PinningDelegate().urlSession(session, didReceive: challenge) { result, _ in disposition = result }
        SSLTrustManager.bundle = Bundle.main
        switch disposition {
        case .useCredential?: return true
        case .cancelAuthenticationChallenge?, .rejectProtectionSpace?: return false
        default: throw AppFailure("pinning", "the delegate gave no usable disposition (\(String(describing: disposition)))")
        }
    }
}

/// The challenge's sender; the seed tells it to use the credential before calling the handler,
/// whose disposition is what counts.
final class RecordingSender: NSObject, URLAuthenticationChallengeSender {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}
