import Foundation

extension ParsableCommand {
    /// Every option and flag name the command declares (hidden ones too), e.g. for a config file
    /// that supplies options: it supplies only those the command has.
    public static var optionNames: Set<String> {
        Set(declarations(in: Self()).flatMap(\.specs).filter { $0.kind != .positional }.flatMap(\.names))
    }
}
