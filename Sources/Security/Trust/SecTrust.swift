import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
internal import WireCrypto

// MARK: - Certificates

/// A certificate, as Security's `SecCertificate`: a parsed DER X.509 certificate (OpenSSL's).
public final class SecCertificate: CustomStringConvertible, @unchecked Sendable {
    let x509: X509Certificate
    init(_ x509: X509Certificate) { self.x509 = x509 }

    /// Apple's summary: the common name, else the email address, else the organisational unit/organisation.
    var subjectSummary: String? {
        x509.subjectValues(.commonName).last ?? x509.subjectValues(.emailAddress).first
            ?? x509.subjectValues(.organizationalUnit).first ?? x509.subjectValues(.organization).first
    }

    public var description: String { "<cert(\(Unmanaged.passUnretained(self).toOpaque())) s: \(subjectSummary ?? "?")>" }
}

public func SecCertificateGetTypeID() -> CFTypeID { TypeIDs.certificate }

/// Parses one DER certificate; nil for anything else (PEM, trailing bytes, garbage), as on iOS.
@discardableResult
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    guard let x509 = try? X509Certificate(der: Data(data)) else { return nil }
    return SecCertificate(x509)
}

@discardableResult
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData { certificate.x509.der as NSData }

@discardableResult
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    certificate.subjectSummary.map { $0 as NSString }
}

@discardableResult
public func SecCertificateCopyCommonName(_ certificate: SecCertificate, _ commonName: UnsafeMutablePointer<CFString?>) -> OSStatus {
    commonName.pointee = certificate.x509.subjectValues(.commonName).last.map { $0 as NSString }
    return errSecSuccess
}

@discardableResult
public func SecCertificateCopySerialNumberData(_ certificate: SecCertificate, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    certificate.x509.serialNumber as NSData
}

/// The certificate's public key (RSA, or EC P-256/384/521; nil for other key types).
@discardableResult
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    certificate.x509.rsaPublicKey.map { SecKey(.rsaPublic($0)) } ?? certificate.x509.ecPublicKey.map { SecKey(.ecPublic($0)) }
}

// MARK: - Policies

/// A trust policy: basic X.509, or SSL (server or client) with an optional host name.
public final class SecPolicy: @unchecked Sendable {
    enum Kind { case basicX509, ssl(server: Bool, hostname: String?) }
    let kind: Kind
    init(_ kind: Kind) { self.kind = kind }
}

public func SecPolicyGetTypeID() -> CFTypeID { TypeIDs.policy }

/// The TLS policy: the chain must suit a TLS server (or client) and, when `hostname` is given,
/// name it in its subjectAltName (never the common name, as since iOS 13).
@discardableResult
public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy {
    SecPolicy(.ssl(server: server, hostname: hostname.map { $0 as String }))
}

@discardableResult
public func SecPolicyCreateBasicX509() -> SecPolicy { SecPolicy(.basicX509) }

// MARK: - Trust

/// The outcome of a trust evaluation, with Apple's raw values.
public enum SecTrustResultType: UInt32, Sendable {
    case invalid = 0
    case proceed = 1
    case confirm = 2
    case deny = 3
    case unspecified = 4
    case recoverableTrustFailure = 5
    case fatalTrustFailure = 6
    case otherError = 7
}

/// A trust object: the certificates to evaluate (leaf first), the policies, and the anchors.
public final class SecTrust: @unchecked Sendable {
    let certificates: [SecCertificate]
    var policies: [SecPolicy]
    var customAnchors: [SecCertificate]? = nil
    var anchorsOnly = true
    var verifyDate: Date? = nil
    var evaluation: Evaluation? = nil
    private let lock = NSLock()

    struct Evaluation {
        let result: SecTrustResultType
        let status: OSStatus
        let message: String
        let chain: [SecCertificate]
    }

    init(certificates: [SecCertificate], policies: [SecPolicy]) {
        self.certificates = certificates
        self.policies = policies
    }

    func invalidate() { lock.lock(); evaluation = nil; lock.unlock() }

    func evaluate() -> Evaluation {
        lock.lock(); defer { lock.unlock() }
        if let evaluation { return evaluation }
        let fresh = runEvaluation()
        evaluation = fresh
        return fresh
    }

    /// The certificate name Apple puts in its messages: “localhost”.
    private var leafName: String { "\u{201C}\(certificates.first?.subjectSummary ?? "certificate")\u{201D}" }

    private func runEvaluation() -> Evaluation {
        guard let leaf = certificates.first else {
            return Evaluation(result: .invalid, status: errSecParam, message: "no certificates to evaluate", chain: [])
        }
        var hostname: String? = nil
        var server = true
        for policy in policies {
            if case let .ssl(isServer, name) = policy.kind { server = isServer; hostname = name ?? hostname }
        }
        let isSSL = policies.contains { if case .ssl = $0.kind { return true } else { return false } }
        let anchors = (customAnchors ?? []).map(\.x509)
        let useSystemRoots = customAnchors == nil || !anchorsOnly
        let date = verifyDate ?? Date()
        let verification: X509VerificationResult
        // Apple's SSL policy checks no key usage (`SecPolicyCreateSSL` passes kSecKeyUsageUnspecified,
        // OSX/sec/Security/SecPolicy.c) and the server EKU by its own list (set_ssl_ekus, below), so
        // OpenSSL's TLS-server purpose (which also wants a TLS key usage) is not asked for; the
        // client policy keeps OpenSSL's TLS-client purpose; basic X.509 checks no purpose.
        let purpose: X509VerificationPolicy.Purpose = isSSL && !server ? .sslClient : .none
        do {
            verification = try X509ChainVerifier.verify(
                leaf: leaf.x509, intermediates: certificates.dropFirst().map(\.x509), anchors: anchors,
                systemRoots: useSystemRoots,
                policy: X509VerificationPolicy(hostname: isSSL ? hostname : nil, purpose: purpose, verifyDate: date))
        } catch {
            return Evaluation(result: .otherError, status: errSecInternalComponent, message: "trust evaluation failed: \(error)", chain: [])
        }
        let chain = verification.chain.map(SecCertificate.init)
        switch verification.failure {
        case nil: break
        case .expired?:
            return Evaluation(result: .recoverableTrustFailure, status: errSecCertificateExpired, message: "\(leafName) certificate is expired", chain: chain)
        case .notYetValid?:
            return Evaluation(result: .recoverableTrustFailure, status: errSecCertificateNotValidYet, message: "\(leafName) certificate is not yet valid", chain: chain)
        case .hostnameMismatch?:
            return Evaluation(result: .recoverableTrustFailure, status: errSecHostNameMismatch, message: "\(leafName) certificate name does not match input", chain: chain)
        case .untrusted?, .badSignature?:
            return Evaluation(result: .recoverableTrustFailure, status: errSecNotTrusted, message: "\(leafName) certificate is not trusted", chain: chain)
        case .invalidUsage?:
            return Evaluation(result: .fatalTrustFailure, status: errSecNotTrusted,
                              message: "\(leafName) certificate is not permitted for this usage (\(verification.message))", chain: chain)
        case .other?:
            return Evaluation(result: .fatalTrustFailure, status: errSecNotTrusted, message: "\(leafName) certificate: \(verification.message)", chain: chain)
        }
        // Apple's rules on top of the chain, from apple-oss-distributions/Security:
        // - every policy: no weak key (RSA < 1024, EC < 160 bits) and no MD2/MD4/MD5 signature below the anchor
        //   (SecPolicyServer.c SecPolicyCheckWeakKeySize, SecPolicyCheckWeakSignature);
        // - the SSL server policy (SecPolicy.c SecPolicyCreateSSL_internal) on app-anchored and system
        //   chains: RSA ≥ 2048 / EC ≥ 256 bits on every certificate of the path, the anchor included
        //   (SecPolicyAddStrongKeySizeOptions; SecPolicyServer.c SecPolicyCheckKeySize →
        //   errSecUnsupportedKeySize); no MD2/MD4/MD5/SHA-1 signature on any certificate but a
        //   self-signed one's own (SecPolicyRemoveWeakHashOptions; SecPolicyCheckSignatureHashAlgorithms
        //   skips self-signed certificates → errSecInvalidDigestAlgorithm); a leaf EKU, when present,
        //   with serverAuth, anyExtendedKeyUsage or SGC (set_ssl_ekus → errSecInvalidExtendedKeyUsage).
        let sslServer = isSSL && server
        for (index, certificate) in verification.chain.enumerated() {
            let isAnchor = index == verification.chain.count - 1 && verification.chain.count > 1
            // SecCertificate.c SecCertificateIsWeakKey: RSA under 1024 bits, EC under 160 bits.
            let weakKeyFloor = certificate.publicKeyAlgorithm == "EC" ? 160 : 1024
            if !isAnchor, certificate.publicKeyBits < weakKeyFloor {
                return Evaluation(result: .recoverableTrustFailure, status: errSecNotTrusted,
                                  message: "\(leafName) certificate uses a weak key (\(certificate.publicKeyBits) bits)", chain: chain)
            }
            if sslServer {
                let bits = certificate.publicKeyBits, algorithm = certificate.publicKeyAlgorithm
                let strong = (algorithm == "RSA" && bits >= AppleServerCertificateRules.minimumRSABits)
                    || (algorithm == "EC" && bits >= AppleServerCertificateRules.minimumECBits)
                if !strong {
                    return Evaluation(result: .recoverableTrustFailure, status: errSecUnsupportedKeySize,
                                      message: "\(leafName) certificate chain uses a key too small for TLS (\(algorithm) \(bits) bits in certificate \(index))", chain: chain)
                }
            }
            let digest = certificate.signatureDigestName?.uppercased() ?? ""
            let weakDigests = sslServer ? ["MD2", "MD4", "MD5", "SHA1"] : ["MD2", "MD4", "MD5"]
            let selfSigned = certificate.isSelfIssued
            if weakDigests.contains(digest), !(sslServer ? selfSigned : isAnchor) {
                return Evaluation(result: .recoverableTrustFailure, status: sslServer ? errSecInvalidDigestAlgorithm : errSecNotTrusted,
                                  message: "\(leafName) certificate is signed with a weak hash (\(digest))", chain: chain)
            }
        }
        if sslServer, !leaf.x509.extendedKeyUsageAllowsTLSServer {
            return Evaluation(result: .recoverableTrustFailure, status: errSecInvalidExtendedKeyUsage,
                              message: "\(leafName) certificate is not permitted for this usage", chain: chain)
        }
        let anchoredByApp = !anchors.isEmpty && verification.chain.last.map { last in anchors.contains { $0.der == last.der } } == true
        if isSSL, server, anchoredByApp, let notBefore = leaf.x509.notBefore, let notAfter = leaf.x509.notAfter {
            if notBefore > AppleServerCertificateRules.strictRulesStart {
                if AppleServerCertificateRules.validityTooLong(notBefore: notBefore, notAfter: notAfter) {
                    return Evaluation(result: .recoverableTrustFailure, status: errSecCertificateValidityPeriodTooLong,
                                      message: "\(leafName) certificate is not standards compliant", chain: chain)
                }
                // SecPolicyCheckServerAuthEKU: an EKU extension holding serverAuth itself (anyExtendedKeyUsage is not enough).
                if !leaf.x509.hasServerAuthExtendedKeyUsage {
                    return Evaluation(result: .recoverableTrustFailure, status: errSecInvalidExtendedKeyUsage,
                                      message: "\(leafName) certificate is not standards compliant", chain: chain)
                }
            }
        }
        return Evaluation(result: .unspecified, status: errSecSuccess, message: "trusted", chain: chain)
    }
}

public func SecTrustGetTypeID() -> CFTypeID { TypeIDs.trust }

/// `certificates` is one SecCertificate or an array of them (leaf first); `policies` one
/// SecPolicy, an array of them, or nil (basic X.509).
@discardableResult
public func SecTrustCreateWithCertificates(_ certificates: CFTypeRef, _ policies: CFTypeRef?,
                                           _ trust: UnsafeMutablePointer<SecTrust?>) -> OSStatus {
    let certificateList: [SecCertificate]
    if let single = certificates as? SecCertificate {
        certificateList = [single]
    } else if let array = certificates as? NSArray, let list = array as? [SecCertificate], !list.isEmpty {
        certificateList = list
    } else {
        return errSecParam
    }
    let policyList: [SecPolicy]
    switch policies {
    case nil: policyList = [SecPolicyCreateBasicX509()]
    case let single as SecPolicy: policyList = [single]
    case let array as NSArray:
        guard let list = array as? [SecPolicy] else { return errSecParam }
        policyList = list
    default: return errSecParam
    }
    trust.pointee = SecTrust(certificates: certificateList, policies: policyList)
    return errSecSuccess
}

/// Trust only these certificates (and, with SecTrustSetAnchorCertificatesOnly(false), the system's
/// roots too). Any anchor ends a chain, self-signed or not, as on iOS. nil restores system roots.
@discardableResult
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus {
    guard let anchorCertificates else {
        trust.customAnchors = nil
        trust.invalidate()
        return errSecSuccess
    }
    guard let list = anchorCertificates as? [SecCertificate] else { return errSecParam }
    trust.customAnchors = list
    trust.anchorsOnly = true
    trust.invalidate()
    return errSecSuccess
}

@discardableResult
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
    trust.anchorsOnly = anchorCertificatesOnly
    trust.invalidate()
    return errSecSuccess
}

@discardableResult
public func SecTrustCopyCustomAnchorCertificates(_ trust: SecTrust, _ anchors: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    anchors.pointee = trust.customAnchors.map { NSArray(array: $0) }
    return errSecSuccess
}

@discardableResult
public func SecTrustSetPolicies(_ trust: SecTrust, _ policies: CFTypeRef) -> OSStatus {
    if let single = policies as? SecPolicy { trust.policies = [single] }
    else if let array = policies as? NSArray, let list = array as? [SecPolicy] { trust.policies = list }
    else { return errSecParam }
    trust.invalidate()
    return errSecSuccess
}

/// Evaluates at `verifyDate` instead of now (validity dates are checked against it).
@discardableResult
public func SecTrustSetVerifyDate(_ trust: SecTrust, _ verifyDate: CFDate) -> OSStatus {
    trust.verifyDate = verifyDate as Date
    trust.invalidate()
    return errSecSuccess
}

/// The older evaluation call (seed 002 uses it): the status is errSecSuccess whenever the
/// evaluation ran; the verdict is in `result` (.unspecified when trusted).
@discardableResult
public func SecTrustEvaluate(_ trust: SecTrust, _ result: UnsafeMutablePointer<SecTrustResultType>) -> OSStatus {
    let evaluation = trust.evaluate()
    result.pointee = evaluation.result
    return evaluation.result == .otherError ? evaluation.status : errSecSuccess
}

/// Evaluates and returns true when trusted; otherwise sets `error` to a CFError whose code is the
/// reason (errSecNotTrusted, errSecCertificateExpired, errSecHostNameMismatch, …).
@discardableResult
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    let evaluation = trust.evaluate()
    if evaluation.result == .unspecified || evaluation.result == .proceed {
        error?.pointee = nil
        return true
    }
    error?.pointee = makeSecError(evaluation.status, evaluation.message)
    return false
}

/// The last evaluation's result, `.invalid` before any (Apple's SecTrust.c, `SecTrustGetTrustResult`:
/// it reads `_trustResult` and evaluates nothing; the calls below that do evaluate set it).
@discardableResult
public func SecTrustGetTrustResult(_ trust: SecTrust, _ result: UnsafeMutablePointer<SecTrustResultType>) -> OSStatus {
    result.pointee = trust.evaluation?.result ?? .invalid
    return errSecSuccess
}

/// The evaluated chain's length, evaluating first (Apple's SecTrust.c, `SecTrustGetCertificateCount`:
/// `SecTrustEvaluateIfNecessary`, then the chain's count, or 1 without a chain). Before issue 38 this
/// returned the certificates given (1 for a leaf alone) until something else evaluated.
@discardableResult
public func SecTrustGetCertificateCount(_ trust: SecTrust) -> CFIndex {
    let chain = trust.evaluate().chain
    return chain.isEmpty ? 1 : chain.count
}

/// The leaf without evaluating; any other index from the evaluated chain, evaluating first
/// (Apple's SecTrust.c, `SecTrustGetCertificateAtIndex`).
@discardableResult
public func SecTrustGetCertificateAtIndex(_ trust: SecTrust, _ ix: CFIndex) -> SecCertificate? {
    if ix == 0 { return trust.certificates.first }
    let chain = trust.evaluate().chain
    return chain.indices.contains(ix) ? chain[ix] : nil
}

/// The evaluated chain, leaf first (evaluating first if needed).
@discardableResult
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? {
    let chain = trust.evaluate().chain
    return NSArray(array: chain.isEmpty ? trust.certificates : chain)
}

/// The leaf certificate's public key.
@discardableResult
public func SecTrustCopyKey(_ trust: SecTrust) -> SecKey? {
    trust.certificates.first.flatMap(SecCertificateCopyKey)
}

@discardableResult
public func SecTrustCopyPublicKey(_ trust: SecTrust) -> SecKey? { SecTrustCopyKey(trust) }

// MARK: - Foundation's server-trust challenge, which Foundation on Linux leaves out

/// Foundation's name for the server-trust authentication method. swift-corelibs-foundation marks
/// its own as unavailable (it has no Security); this one is usable, with Apple's value.
public let NSURLAuthenticationMethodServerTrust: String = "NSURLAuthenticationMethodServerTrust"
/// Likewise for client-certificate challenges (unavailable in swift-corelibs-foundation).
public let NSURLAuthenticationMethodClientCertificate: String = "NSURLAuthenticationMethodClientCertificate"

#if canImport(FoundationNetworking)
private let serverTrusts = TrustTable<URLProtectionSpace>()

/// Which object carries which SecTrust (Linux's URLProtectionSpace and URLCredential have no such
/// field). The owner is kept alive with its trust, so its ObjectIdentifier is never reused.
private final class TrustTable<Owner: AnyObject>: @unchecked Sendable {
    private let lock = NSLock()
    private var table: [ObjectIdentifier: (owner: Owner, trust: SecTrust)] = [:]
    func set(_ trust: SecTrust, for owner: Owner) {
        lock.lock(); table[ObjectIdentifier(owner)] = (owner, trust); lock.unlock()
    }
    func trust(for owner: Owner) -> SecTrust? {
        lock.lock(); defer { lock.unlock() }
        return table[ObjectIdentifier(owner)]?.trust
    }
}

extension URLProtectionSpace {
    /// The server's trust object, as on Apple platforms, for protection spaces made by
    /// `serverTrustProtectionSpace(host:port:trust:)` (the system makes them on iOS).
    public var serverTrust: SecTrust? { serverTrusts.trust(for: self) }

    /// A server-trust protection space carrying `trust`: what URLSession hands a delegate on iOS
    /// during a TLS handshake. Not an Apple API; for harnesses that drive a delegate themselves.
    public static func serverTrustProtectionSpace(host: String, port: Int, trust: SecTrust) -> URLProtectionSpace {
        let space = URLProtectionSpace(host: host, port: port, protocol: "https", realm: nil,
                                       authenticationMethod: NSURLAuthenticationMethodServerTrust)
        serverTrusts.set(trust, for: space)
        return space
    }
}

private let credentialTrusts = TrustTable<URLCredential>()

extension URLCredential {
    /// A credential that accepts a server trust, as Apple's `URLCredential(trust:)`.
    public convenience init(trust: SecTrust) {
        self.init(user: "", password: "", persistence: .none)
        credentialTrusts.set(trust, for: self)
    }

    /// The trust a credential made with `init(trust:)` accepts.
    public var acceptedServerTrust: SecTrust? { credentialTrusts.trust(for: self) }
}
#endif
