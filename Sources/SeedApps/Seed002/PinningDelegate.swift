// Seed 002 ("iOS Tutorial => Transport Security using SSL"), the URLSessionDelegate method,
// vendored verbatim: lines 16–38 of 002_7f1f2688a08b849f.txt. Every line that does not end in
// "// GLUE" is the seed's, byte for byte (checked by Tests/SeedAppsTests/VerbatimTests.swift
// against Extracts/seed002-URLSessionDelegate.swift.txt).
// EXTRACT: seed002-URLSessionDelegate.swift.txt FROM LINE 16
// MODE: verbatim-lines
// Changed lines: none.
// Glue: a delegate class to hold the method (the page shows the method alone). No imports: the
// page has none, and ImplicitImportsGlue.swift gives this target what an iOS app target sees
// (Foundation, URLSession's delegate types, Security) without them.
// ---- end of header ----
final class PinningDelegate: NSObject, URLSessionDelegate { // GLUE
func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge, completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
    
    if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust {
        let serverTrust:SecTrust = challenge.protectionSpace.serverTrust!

        func acceptServerTrust() {
            let credential:URLCredential = URLCredential(trust: serverTrust)
            challenge.sender?.use(credential, for: challenge)
            completionHandler(.useCredential, URLCredential(trust: challenge.protectionSpace.serverTrust!))
        }
        
        let success = SSLTrustManager.shouldTrustServerTrust(serverTrust, forCert: "Server_Public_SSL_Cert")
        if success {
            acceptServerTrust()
            return
        }
    }
    else if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodClientCertificate {
        completionHandler(.rejectProtectionSpace, nil);
        return
    }
    completionHandler(.cancelAuthenticationChallenge, nil)
}
} // GLUE
