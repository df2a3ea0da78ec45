import Foundation
internal import WireCrypto

extension AES {
    /// CryptoKit's AES key wrap (RFC 3394, default initial value), over WireCrypto's `AESKeyWrap`.
    /// Errors as CryptoKit names them: a key-encryption key that is not 128, 192 or 256 bits is
    /// `incorrectKeySize`; a key to wrap that is not whole 64-bit blocks (at least two) is
    /// `wrapFailure`; a wrapped key that is malformed or fails RFC 3394's integrity check
    /// (wrong key-encryption key, tampered bytes) is `unwrapFailure`.
    public enum KeyWrap {
        public static func wrap(_ keyToWrap: SymmetricKey, using kek: SymmetricKey) throws -> Data {
            do {
                return Data(try AESKeyWrap.wrap(keyToWrap.bytes, kek: kek.wrapped))
            } catch WireCryptoError.incorrectKeySize {
                throw CryptoKitError.incorrectKeySize
            } catch {
                throw CryptoKitError.wrapFailure
            }
        }

        public static func unwrap<WrappedKey: DataProtocol>(_ wrappedKey: WrappedKey, using kek: SymmetricKey) throws -> SymmetricKey {
            do {
                return SymmetricKey(data: try AESKeyWrap.unwrap(wrappedKey, kek: kek.wrapped))
            } catch WireCryptoError.incorrectKeySize {
                throw CryptoKitError.incorrectKeySize
            } catch {
                throw CryptoKitError.unwrapFailure
            }
        }
    }
}
