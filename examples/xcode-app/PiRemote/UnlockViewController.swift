import UIKit

final class UnlockViewController: UIViewController {
    @IBOutlet weak var statusLabel: UILabel!

    @IBAction func unlockTapped(_ sender: UIButton) {
        guard let serverKey = ServerKeyEncryptor.bundledServerKeyPEM() else { return }
        let code = (try? ServerKeyEncryptor.encrypt("unlock front door", publicKeyPEM: serverKey)) ?? ""
        let signature = RequestSigner.sign(method: "POST", path: "/api/door/unlock", timestamp: "\(Int(Date().timeIntervalSince1970))",
                                           body: "{\"code\":\"\(code)\"}", secretHex: "00112233445566778899aabbccddeeff")
        statusLabel.text = "sent (\(signature.prefix(8)))"
    }
}
