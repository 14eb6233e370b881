import ArgumentParser
import Fingerprint

/// A finger named on the command line (`enroll`, `verify`, `forget`): checked in `validate()`, with
/// the nearest finger name suggested for a typo.
enum FingerArgument {
    /// Every name a finger argument offers (for completion and suggestions); `any` where allowed.
    static func names(orAny: Bool = false) -> [String] {
        (orAny ? ["any"] : []) + Finger.allCases.map(\.rawValue)
    }

    static func validate(_ name: String, orAny: Bool = false) throws(ValidationError) {
        if Finger(name: name) != nil || (orAny && name == "any") { return }
        let hint =
            Suggestion.didYouMean(name, among: names(orAny: orAny))
            ?? "use \(orAny ? "`any` or " : "")one of: \(Finger.validNames)."
        throw ValidationError("'\(name)' is not a finger; \(hint)")
    }
}
