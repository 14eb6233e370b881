import Auth

/// The kernel keyring the unlock key is cached in (user mode): usable, unusable, or revoked in
/// this shell.
extension Doctor {
    func keyringFinding() -> DoctorFinding {
        switch dependencies.keyring.probe() {
        case .usable:
            return .ok("keyring", "The kernel keyring (@u) can cache the unlock key.")
        case .unusable(let reason):
            return .error(
                "keyring",
                "The kernel keyring is not usable (\(reason)), so no key can be cached for a finger to release.",
                fix: "run fingerlock on the host, or in a container that allows the add_key and keyctl system calls")
        case .sessionKeyringRevoked:
            return .error(
                "keyring",
                "This shell's session keyring was revoked (pam_keyinit revokes it when a runuser or su session ends, "
                    + "e.g. one that started tmux), so keys in @u are out of reach and no key can be cached.",
                fix: "run `keyctl new_session && keyctl link @u @s` in this shell, or log in anew")
        }
    }
}
