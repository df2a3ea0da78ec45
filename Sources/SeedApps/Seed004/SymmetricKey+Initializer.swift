// Seed 004, "SymmetricKey+Initializer.swift", vendored verbatim: lines 146–165 of
// 004_c5628d83a3ef37cf.txt (Qiita, "CryptoKitで実ファイルの暗号化・復号を行う"). Every line below
// the header is the seed's, byte for byte; Tests/SeedAppsTests/VerbatimTests.swift checks it
// against Tests/SeedAppsTests/Extracts/seed004-SymmetricKey+Initializer.swift.txt.
// Changed lines: none. Glue lines: none.
// EXTRACT: seed004-SymmetricKey+Initializer.swift.txt FROM LINE 146
// MODE: verbatim-lines
// ---- end of header ----
import Foundation
import CryptoKit

extension SymmetricKey {

    // Create symetricKey with base64Encoded string
    init?(base64EncodedString string: String) {
        guard let data = Data(base64Encoded: string) else {
            return nil
        }
        self.init(data: data)
    }

    // CreateBase64String from symetricKey
    func serialize() -> String {
        return self.withUnsafeBytes { body in
            Data(body).base64EncodedString()
        }
    }
}
