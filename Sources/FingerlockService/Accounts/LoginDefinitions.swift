import FoundationEssentials

/// What the service takes from `/etc/login.defs`: UID_MAX, the highest uid `useradd` gives a login
/// user (Debian: 60000). At or below it a uid is its own account; above it only a subordinate
/// range or a user-database entry ties it to someone (`SubordinateUIDAccounts`).
public enum LoginDefinitions {
    public static let defaultHighestLoginUID: UInt32 = 60000

    /// UID_MAX of the file at `path`; the default when the file or the setting is missing or not a
    /// decimal number.
    public static func highestLoginUID(path: String) -> UInt32 {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return defaultHighestLoginUID }
        return highestLoginUID(parsing: text)
    }

    static func highestLoginUID(parsing text: String) -> UInt32 {
        for line in text.split(whereSeparator: \.isNewline) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.count >= 2, words[0] == "UID_MAX", let value = UInt32(words[1]) { return value }
        }
        return defaultHighestLoginUID
    }
}
