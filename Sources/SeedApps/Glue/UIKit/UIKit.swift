// GLUE for seed 000, not Apple's UIKit: the few UIKit names the ported view controller keeps, so
// its state (which buttons are enabled, what the labels say) is still there to check. Nothing is
// drawn. On iOS, `import UIKit` also brings Foundation and Security, so this module re-exports them.
@_exported import Foundation
@_exported import Security

open class UIResponder: NSObject {}

open class UIViewController: UIResponder {
    open func viewDidLoad() {}
    open func didReceiveMemoryWarning() {}
}

open class UIView: UIResponder {
    public var frame: CGRect
    public init(frame: CGRect) { self.frame = frame }
}

open class UIControl: UIView {
    public var isEnabled = true
    public var alpha: CGFloat = 1
}

open class UIButton: UIControl {}

open class UILabel: UIView {
    public var text: String?
}
