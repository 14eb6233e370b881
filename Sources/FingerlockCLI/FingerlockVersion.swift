/// fingerlock's version: the one place it is written (`--version`, `doctor`, the man page).
public enum FingerlockVersion {
    public static let current = "0.1.0"

    /// What `fingerlock --version` prints, as `git --version` does: the name, then the version.
    public static var line: String { "fingerlock \(current)" }
}
