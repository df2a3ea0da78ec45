// GLUE for seed 000 (the whole file): the app's `print` calls resolve to this function of
// the app's own module rather than Swift's, so what the app prints goes to AppConsole (a failing
// check shows it), not into crosscheck's progress output. The seed's lines are unchanged.
import AppUnderTest

func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    AppConsole.write(items.map { "\($0)" }.joined(separator: separator) + terminator)
}
