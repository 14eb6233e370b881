import Foundation

/// What makes an acceptable passcode.
public enum PasscodeRules {
    public static let minimumLength = 6

    /// Nil when acceptable; else why not.
    public static func rejection(_ passcode: String) -> String? {
        if passcode.count < minimumLength {
            return "The passcode must have at least \(minimumLength) characters."
        }
        return nil
    }

    /// A warning for an acceptable but easily guessed passcode, or nil.
    public static func weakness(_ passcode: String) -> String? {
        let characters = Array(passcode)
        if Set(characters).count <= 2 {
            return "This passcode repeats one or two characters; it is easy to guess."
        }
        if characters.allSatisfy(\.isNumber) && characters.count < 10 {
            return "A passcode of only digits is quick to guess offline; consider a longer one or a phrase."
        }
        let scalars = passcode.unicodeScalars.map(\.value)
        let steps = zip(scalars, scalars.dropFirst()).map { Int($1) - Int($0) }
        if let first = steps.first, abs(first) == 1, steps.allSatisfy({ $0 == first }) {
            return "This passcode is a simple sequence; it is easy to guess."
        }
        let common = ["password", "passcode", "qwerty", "letmein", "fingerlock", "123456", "iloveyou", "admin"]
        if common.contains(where: { passcode.lowercased().contains($0) }) {
            return "This passcode contains a very common word; it is easy to guess."
        }
        return nil
    }
}
