// Seed 000 ("Sending RSA encrypted message - From Python socket server to iOS device (iOS Part)"),
// ViewController.swift, ported from Swift 2.1 (Xcode 7.2.1) to Swift 5: lines 132–806 of
// 000_db0970714c7f8289.txt (Extracts/seed000-ViewController.swift.txt).
// EXTRACT: seed000-ViewController.swift.txt FROM LINE 132
// MODE: port
// Kept: the behaviour — a 1024-bit key pair made by SecKeyGeneratePair and kept in the keychain
// under the two tags, the public key read back as data and turned into PEM by
// CryptoExportImportManager, "public_key=<PEM>" written once, one read of at most 200 bytes into
// `buffer`, SecKeyDecrypt with PKCS#1 over exactly the bytes that read returned, "Quit".
// Every seed line that is not reproduced character for character (leading spaces aside) is
// listed below with the reason; Tests/SeedAppsTests/VerbatimTests.swift checks that the list is
// complete and names no line that was kept. Lines ending in "// GLUE" are not the seed's.
// PORTED L134: NSStreamDelegate is StreamDelegate in Swift 5.
// PORTED L140-L142: the page pads with non-breaking spaces (U+00A0), which Swift warns about; they are spaces here. Only the spacing differs.
// PORTED L146: as L140.
// PORTED L194: as L140.
// PORTED L452-L454: as L140.
// PORTED L618: as L140.
// PORTED L162: `let port = xxxx` is a placeholder, not Swift; `var port = 9876` (the tutorials' port), variable so a harness can point the app at its server.
// PORTED L160: `let addr` → `var addr`, for the same reason.
// PORTED L168-L170: NSInputStream/NSOutputStream are InputStream/OutputStream in Swift 5.
// PORTED L176: Array(count:repeatedValue:) is Array(repeating:count:) in Swift 5.
// PORTED L222-L232: CGRectMake is CGRect(x:y:width:height:); titles, colours, target-action wiring and addSubview are layout only (the glue UIKit draws nothing) and are dropped.
// PORTED L236-L244: as L222–L232.
// PORTED L248: `enabled` is `isEnabled` in Swift 5.
// PORTED L250-L262: as L222–L232.
// PORTED L266: as L248.
// PORTED L268-L280: as L222–L232.
// PORTED L284-L286: as L248; addSubview dropped.
// PORTED L300: as L248.
// PORTED L308: dataUsingEncoding(NSUTF8StringEncoding) is data(using: .utf8); the result is bridged to NSData as before.
// PORTED L310: UnsafePointer<UInt8>(data.bytes) is data.bytes.assumingMemoryBound(to: UInt8.self) in Swift 5. Still one write call, its result ignored as in the seed (`_ =`: Foundation on Linux declares write(_:maxLength:) in Swift, where an unused result is a warning; Apple imports it from Objective-C, where it is not).
// PORTED L318: as L176.
// PORTED L338: NSUTF8StringEncoding is String.Encoding.utf8.rawValue. The seed force-unwraps, so plaintext that is not UTF-8 crashes the app; the port records that (glue `trappedOnNonUTF8`) and returns instead of taking the harness down with it.
// PORTED L348: as L248.
// PORTED L352: as L248.
// PORTED L358-L360: as L308 and L310.
// PORTED L366: as L248.
// PORTED L376-L386: CGRectMake as above; centre, alignment, line count, font and addSubview are layout only and dropped.
// PORTED L390-L394: as L376–L386.
// PORTED L398: as L376–L386.
// PORTED L448: a Swift 2 function's first parameter had no label; Swift 5 needs `_` for the seed's calls `GetKeyTypeInKeyChain(tagPrivate)` to compile unchanged.
// PORTED L456-L458: Swift 5 no longer bridges String and Bool to AnyObject implicitly: `as AnyObject`.
// PORTED L468: a Swift dictionary is passed as CFDictionary with `as CFDictionary` since Swift 3.
// PORTED L500: a dictionary literal of NSString and Bool values needs an explicit type in Swift 5: `[String: Any]`.
// PORTED L516: as L468.
// PORTED L548-L550: as L456.
// PORTED L556-L558: as L456.
// PORTED L568-L572: as L456 (Int and Dictionary values).
// PORTED L580: as L468.
// PORTED L602: as L448.
// PORTED L604: stringByReplacingOccurrencesOfString(_:withString:) is replacingOccurrences(of:with:).
// PORTED L622: as L468.
// PORTED L654: NSStream.getStreamsToHostWithName is Stream.getStreamsToHost(withName:…) in Swift 5, which Foundation on Linux lacks; StreamGlue.swift provides it over a TCP socket.
// PORTED L664-L666: scheduleInRunLoop(_:forMode:) is schedule(in: .current, forMode: .default).
// PORTED L676: as L176.
// PORTED L682: the StreamDelegate method is stream(_:handle:) with Stream.Event in Swift 5.
// PORTED L688: the events are spelled Stream.Event.endEncountered etc. in Swift 5.
// PORTED L700: as L664 (remove(from:forMode:)).
// PORTED L706: as L700.
// PORTED L710: as L248.
// PORTED L712: removeAll(keepCapacity:) is removeAll(keepingCapacity:).
// PORTED L714: as L688.
// PORTED L722: as L700.
// PORTED L726: as L700.
// PORTED L732: as L248.
// PORTED L736: as L688.
// PORTED L760: as L248.
// PORTED L764: as L248.
// PORTED L772: as L688.
// PORTED L776: as L688 (the empty event set, Stream.Event()).
// PORTED L780: as L688.
// PORTED L788: as L248.
// ---- end of header ----
import UIKit

class ViewController: UIViewController, StreamDelegate {

    //Button
    var buttonConnect    : UIButton!
    var buttonSendKey     : UIButton!
    var buttonDecryptMsg : UIButton!
    var buttonQuit       : UIButton!

    //Label
    var label : UILabel!
    var labelConnection : UILabel!

    //Socket server
    var addr = "192.168.xx.xx"
    var port = 9876

    //Network variables
    var inStream : InputStream?
    var outStream: OutputStream?

    //Data received
    var buffer = [UInt8](repeating: 0, count: 200)

    var inStreamLength : Int!

    //Key variables and constants
    var publicKey, privateKey: SecKey?
    var publicKeyString = ""
    let keySize = 1024
    let tagPrivate = "com.mycompany.tagPrivate"
    let tagPublic  = "com.mycompany.tagPublic"

    var lastDecryptStatus: OSStatus? // GLUE: what SecKeyDecrypt returned last (the seed only prints it)
    var trappedOnNonUTF8 = false // GLUE: the seed's force-unwrap would have crashed here

    override func viewDidLoad() {
        super.viewDidLoad()

        ButtonSetup()

        LabelSetup()

        KeySetup()
    }

    //Button Functions
    func ButtonSetup() {
        buttonConnect = UIButton(frame: CGRect(x: 20, y: 50, width: 300, height: 30))

        buttonSendKey = UIButton(frame: CGRect(x: 20, y: 100, width: 300, height: 30))
        buttonSendKey.alpha = 0.3
        buttonSendKey.isEnabled = false

        buttonDecryptMsg = UIButton(frame: CGRect(x: 20, y: 150, width: 300, height: 30))
        buttonDecryptMsg.alpha = 0.3
        buttonDecryptMsg.isEnabled = false

        buttonQuit = UIButton(frame: CGRect(x: 20, y: 200, width: 300, height: 30))
        buttonQuit.alpha = 0.3
        buttonQuit.isEnabled = false
    }

    func btnConnectPressed(sender: UIButton) {
        NetworkEnable()

        buttonConnect.alpha = 0.3
        buttonConnect.isEnabled = false
    }
    func btnSendKey(sender: UIButton) {
        let publicKeyTypeStr = "public_key=\(publicKeyString)"
        let data : NSData = publicKeyTypeStr.data(using: .utf8)! as NSData
        _ = outStream?.write(data.bytes.assumingMemoryBound(to: UInt8.self), maxLength: data.length)
    }
    func btnDecryptMsg(sender: UIButton) {
        let dataEncryptedSize : Int = inStreamLength
        var arrayDecrypted = [UInt8](repeating: 0, count: dataEncryptedSize)
        var arrayDecryptedSize = dataEncryptedSize
        let status = SecKeyDecrypt(privateKey!, SecPadding.PKCS1, &buffer, dataEncryptedSize, &arrayDecrypted, &arrayDecryptedSize)
        lastDecryptStatus = status // GLUE
        if status == errSSLCrypto {
            print("errSSLCrypto") //-9809 error
            return
        } else if status != noErr {
            print("Decryption Error! \(status.description)")
            return
        }
        guard let messageStr = NSString(bytes: &arrayDecrypted, length: arrayDecryptedSize, encoding: String.Encoding.utf8.rawValue) else { trappedOnNonUTF8 = true; return }
        label.text = "Server sent:\n\(messageStr)"
        print("Decrypt successfully:\n\(messageStr)")

        buttonDecryptMsg.alpha = 0.3
        buttonDecryptMsg.isEnabled = false
        buttonQuit.alpha = 1
        buttonQuit.isEnabled = true
    }
    func btnQuitPressed(sender: UIButton) {
        let data : NSData = "Quit".data(using: .utf8)! as NSData
        _ = outStream?.write(data.bytes.assumingMemoryBound(to: UInt8.self), maxLength: data.length)

        buttonQuit.alpha = 0.3
        buttonQuit.isEnabled = false
    }

    //Label setup function
    func LabelSetup() {
        label = UILabel(frame: CGRect(x: 0, y: 0, width: 300, height: 150))

        labelConnection = UILabel(frame: CGRect(x: 0, y: 0, width: 300, height: 30))
        labelConnection.text = "Please connect to server"
    }

    //Get keys from keychain or generate new keys
    func KeySetup() {

        //Reset keychain
        //deleteAllKeysInKeyChain()

        if (GetKeysFromKeychain()) {
            print("Key pair retrieved successfully!")
        } else {
            print("No valid key pair")
            deleteAllKeysInKeyChain()
            GenerateKeyPair()
        }
        GetPublicKeyStr()
    }
    //Other key functions - Check Keychain and get keys
    func GetKeysFromKeychain() -> Bool {
        privateKey = GetKeyTypeInKeyChain(tagPrivate)
        publicKey = GetKeyTypeInKeyChain(tagPublic)
        return ((privateKey != nil)&&(publicKey != nil))
    }

    func GetKeyTypeInKeyChain(_ tag : String) -> SecKey? {
        let query: [String: AnyObject] = [
            String(kSecClass)             : kSecClassKey,
            String(kSecAttrKeyType)       : kSecAttrKeyTypeRSA,
            String(kSecAttrApplicationTag): tag as AnyObject,
            String(kSecReturnRef)         : true as AnyObject
        ]

        var result : AnyObject?

        let status = SecItemCopyMatching(query as CFDictionary, &result)

        if status == errSecSuccess {
            print("\(keyTypeStr(tag)) Key existed!")
            return result as! SecKey?
        }
        print("no \(keyTypeStr(tag)) key")

        return nil
    }

    //Get public key string from keychain
    func GetPublicKeyStr() {

        var unsafeData : AnyObject?

        let parameters: [String: Any] = [
            kSecClass as String: kSecClassKey,
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
            kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
            kSecReturnData as String: true
        ]

        //Get public key string
        let status = SecItemCopyMatching(parameters as CFDictionary, &unsafeData)

        if status != noErr {
            print("Get Key Error!")
            return
        }

        //Need CryptoExportImportManager.swift from GitHub.
        let manager = CryptoExportImportManager()
        publicKeyString = manager.exportRSAPublicKeyToPEM(unsafeData as! NSData, keyType: kSecAttrKeyTypeRSA as String, keySize: keySize)
        //print(publicKeyString) //Check this with server
    }

    //Generate private and public keys
    func GenerateKeyPair() {
        let privateKeyAttr: [NSString: AnyObject] = [
            kSecAttrIsPermanent: true as AnyObject,
            kSecAttrApplicationTag: tagPrivate as AnyObject
        ]
        let publicKeyAttr: [NSString: AnyObject] = [
            kSecAttrIsPermanent: true as AnyObject,
            kSecAttrApplicationTag: tagPublic as AnyObject
        ]

        let parameters: [String: AnyObject] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
            kSecAttrKeySizeInBits as String: keySize as AnyObject,
            kSecPrivateKeyAttrs as String: privateKeyAttr as AnyObject,
            kSecPublicKeyAttrs as String: publicKeyAttr as AnyObject
        ]

        //Generate new keys and store them in keychain
        let status = SecKeyGeneratePair(parameters as CFDictionary, &publicKey, &privateKey)

        if status != noErr {
            print("SecKeyGeneratePair Error! \(status.description)")
            return
        }

        print("Key pair generated successfully")
    }

    //key type string
    func keyTypeStr(_ tag: String) -> String {
        return tag.replacingOccurrences(of: "com.mycompany.tag", with: "")
    }

    //Delete keys when required.
    func deleteAllKeysInKeyChain() {

        let query : [String: AnyObject] = [
            String(kSecClass)             : kSecClassKey
        ]
        let status = SecItemDelete(query as CFDictionary)

        switch status {
        case errSecItemNotFound:
            print("No key in keychain")
        case noErr:
            print("All Keys Deleted!")
        default:
            print("SecItemDelete error! \(status.description)")
        }
    }

    //Network functions
    func NetworkEnable() {

        print("NetworkEnable")
        Stream.getStreamsToHost(withName: addr, port: port, inputStream: &inStream, outputStream: &outStream)

        inStream?.delegate = self
        outStream?.delegate = self

        inStream?.schedule(in: RunLoop.current, forMode: RunLoop.Mode.default)
        outStream?.schedule(in: RunLoop.current, forMode: RunLoop.Mode.default)

        inStream?.open()
        outStream?.open()

        buffer = [UInt8](repeating: 0, count: 200)
    }

    func stream(_ aStream: Stream, handle eventCode: Stream.Event) {

        switch eventCode {
        case Stream.Event.endEncountered:
            print("EndEncountered")
            labelConnection.text = "Connection stopped by server"
            label.text = ""

            inStream?.close()
            inStream?.remove(from: RunLoop.current, forMode: RunLoop.Mode.default)
            outStream?.close()
            print("Stop outStream currentRunLoop")
            outStream?.remove(from: RunLoop.current, forMode: RunLoop.Mode.default)
            buttonConnect.alpha = 1
            buttonConnect.isEnabled = true
            buffer.removeAll(keepingCapacity: true)
        case Stream.Event.errorOccurred:
            print("ErrorOccurred")

            inStream?.close()
            inStream?.remove(from: RunLoop.current, forMode: RunLoop.Mode.default)
            outStream?.close()
            outStream?.remove(from: RunLoop.current, forMode: RunLoop.Mode.default)
            labelConnection.text = "Failed to connect to server"
            buttonConnect.alpha = 1
            buttonConnect.isEnabled = true
            label.text = ""
        case Stream.Event.hasBytesAvailable:
            print("HasBytesAvailable")

            if aStream == inStream {

                inStreamLength = inStream!.read(&buffer, maxLength: buffer.count)

                //If data received
                if inStreamLength > 0 {
                    label.text = "Encrypted message received!"

                    buttonSendKey.alpha = 0.3
                    buttonSendKey.isEnabled = false
                    buttonDecryptMsg.alpha = 1.0
                    buttonDecryptMsg.isEnabled = true
                }
            }

        case Stream.Event.hasSpaceAvailable:
            print("HasSpaceAvailable")
        case Stream.Event():
            print("None")
        case Stream.Event.openCompleted:
            print("OpenCompleted")
            labelConnection.text = "Connected to server"
            buttonSendKey.alpha = 1.0
            buttonSendKey.isEnabled = true
        default:
            print("Unknown")
        }
    }

    override func didReceiveMemoryWarning() {
        super.didReceiveMemoryWarning()
    }
}
