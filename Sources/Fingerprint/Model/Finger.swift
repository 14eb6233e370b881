/// A finger, named as fprintd names it (`left-thumb`, `right-index-finger`, …).
public enum Finger: String, Codable, CaseIterable, Sendable, Comparable, CustomStringConvertible {
    case leftThumb = "left-thumb"
    case leftIndex = "left-index-finger"
    case leftMiddle = "left-middle-finger"
    case leftRing = "left-ring-finger"
    case leftLittle = "left-little-finger"
    case rightThumb = "right-thumb"
    case rightIndex = "right-index-finger"
    case rightMiddle = "right-middle-finger"
    case rightRing = "right-ring-finger"
    case rightLittle = "right-little-finger"

    /// Parses an fprintd finger name; also accepts the short forms `right-index`, `left-little`.
    public init?(name: String) {
        let lowered = name.lowercased()
        if let exact = Finger(rawValue: lowered) {
            self = exact
        } else if let long = Finger(rawValue: lowered + "-finger") {
            self = long
        } else {
            return nil
        }
    }

    public var description: String { rawValue }

    /// Position in fprintd's (and libfprint's `FpFinger`) order, 1 = left thumb … 10 = right little.
    public var ordinal: Int { Finger.allCases.firstIndex(of: self)! + 1 }

    public static func < (lhs: Finger, rhs: Finger) -> Bool { lhs.ordinal < rhs.ordinal }

    /// The list of valid names, for error messages and help.
    public static var validNames: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
