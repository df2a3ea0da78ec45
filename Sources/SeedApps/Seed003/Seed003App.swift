// Seed 003 (a Russian mobile-security guide, "Использование файлового хранилища ключей"), vendored
// verbatim: lines 22–30, 36–64, 70–90, 96–104, 110–121 and 125–152 of 003_fee9b839d7e9fdaa.txt,
// the six code snippets of the page, in order. Every line that does not end in "// GLUE" is the
// seed's, byte for byte; Tests/SeedAppsTests/VerbatimTests.swift checks that against
// Tests/SeedAppsTests/Extracts/seed003-*.swift.txt.
// Changed lines: none.
// Glue (every glue line ends in "// GLUE"): the seed prints top-level statements, which Swift
// runs only in a main.swift, so the snippets are members of one class, and each run of
// statements is wrapped in a method. Values the page carries from one snippet to the next
// (secretKey, plainText, cipherText) become parameters and return values of those methods.
// showCertificateInfo() calls self.displayCertificate(_:), which the page never prints: the glue
// supplies it (the certificate's subject summary and a newline).
// EXTRACT: seed003-1-symmetric-key.swift.txt FROM LINE 22
// EXTRACT: seed003-2-store.swift.txt FROM LINE 36
// EXTRACT: seed003-3-read.swift.txt FROM LINE 70
// EXTRACT: seed003-4-seal-open.swift.txt FROM LINE 96
// EXTRACT: seed003-5-rsa.swift.txt FROM LINE 110
// EXTRACT: seed003-6-certificates.swift.txt FROM LINE 125
// MODE: verbatim-lines
// ---- end of header ----
import Foundation
import Security
import CryptoKit
public final class Seed003App { // GLUE
public init() {} // GLUE

// 256-битный симметричный ключ
func computeSymmetricKey() -> SymmetricKey {
    return SymmetricKey(size: .bits256)
}
func makeSecretKey() -> SymmetricKey { // GLUE
let secretKey = computeSymmetricKey()
return secretKey } // GLUE
enum KeychainErrors: Error {
    case COULDNOTINSERT
    case COULDNOTREAD
}
func store(key: SymmetricKey, withTag tag: String) throws {
    let keyData = key.withUnsafeBytes { Data($0) }

    // на случай повторного запуска удаляем прежнее значение
    let attributes: [String: Any] = [
        kSecClass as String: kSecClassKey,
        kSecAttrApplicationTag as String: tag
    ]
    SecItemDelete(attributes as CFDictionary)

    let query: [String: Any] = [
        kSecClass as String: kSecClassKey,
        kSecAttrApplicationTag as String: tag,
        kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
        kSecValueData as String: keyData
    ]

    let status = SecItemAdd(query as CFDictionary, nil)
    guard status == errSecSuccess else { throw KeychainErrors.COULDNOTINSERT }
}
func storeSecretKey(_ secretKey: SymmetricKey) { // GLUE
do {
    try store(key: secretKey, withTag: "com.myapp.keys.localStore")
} catch {
    print(error)
}
} // GLUE
func read(tag: String) throws -> SymmetricKey {
    let readQuery: [String: Any] = [
        kSecClass as String: kSecClassKey,
        kSecAttrApplicationTag as String: tag,
        kSecReturnData as String: true
    ]

    var item: CFTypeRef?
    let readStatus = SecItemCopyMatching(readQuery as CFDictionary, &item)
    guard readStatus == errSecSuccess, let keyData = item as? Data else {
        throw KeychainErrors.COULDNOTREAD
    }

    return SymmetricKey(data: keyData)
}
func printKeyReadFromKeychain() { // GLUE
do {
    let keyReadFromKeychain = try read(tag: "com.myapp.keys.localStore")
    print(keyReadFromKeychain)
} catch {
    print(error)
}
} // GLUE
func sealGoldenSecret(secretKey: SymmetricKey) throws -> (plainText: Data, cipherText: Data) { // GLUE
let plainText = "this is our golden secret. Encrypt it!".data(using: .utf8)!

// Шифрование
let sealedBox = try AES.GCM.seal(plainText, using: secretKey)
let cipherText = sealedBox.combined!   // nonce + ciphertext + tag
return (plainText, cipherText) } // GLUE
func open(cipherText: Data, secretKey: SymmetricKey) throws -> Data { // GLUE

// Расшифровка
let reopened = try AES.GCM.SealedBox(combined: cipherText)
let decrypted = try AES.GCM.open(reopened, using: secretKey)
return decrypted } // GLUE
func encryptWithNewRSAKey(plainText: Data) throws -> (privateKey: SecKey, cipher: Data?) { // GLUE
let attributes: [String: Any] = [
    kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
    kSecAttrKeySizeInBits as String: 2048,
    kSecAttrIsPermanent as String: true,
    kSecAttrApplicationTag as String: "com.myapp.keys.localStore"
]
var error: Unmanaged<CFError>?
guard let privateKey = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
    throw error!.takeRetainedValue() as Error
}
let publicKey = SecKeyCopyPublicKey(privateKey)!
let cipher = SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA256, plainText as CFData, &error) as Data?
return (privateKey, cipher) } // GLUE
func showCertificateInfo() -> String {
    var resultString = "--- Certificates in Keychain ---\n"
    var outputACert = false
    let query = [kSecMatchLimit: kSecMatchLimitAll,
                kSecReturnRef: true,
                kSecClass: kSecClassCertificate] as CFDictionary
    var result: CFTypeRef?
    let resultCode = SecItemCopyMatching(query, &result)
    if resultCode == errSecSuccess {
        if CFArrayGetTypeID() == CFGetTypeID(result) {
            let array = (result as? NSArray) as? [SecCertificate]
            array?.forEach { (item) in
                resultString += self.displayCertificate(item)
                outputACert = true
            }
        } else {
            // swiftlint:disable force_cast
            resultString += self.displayCertificate(result as! SecCertificate)
            // swiftlint:enable force_cast
            outputACert = true
        }
    }
    if !outputACert {
        resultString += "None\n"
    }
    resultString += "-------------------------------"
    return resultString
}
func displayCertificate(_ certificate: SecCertificate) -> String { // GLUE
return (SecCertificateCopySubjectSummary(certificate) as String? ?? "?") + "\n" } // GLUE
} // GLUE
