import Auth
import Vault

extension PasscodeRepository {
    /// Opens a user-mode vault (the vault's own sealer): what these tests' vaults are.
    func open(with credential: VaultCredential) throws(VaultError) -> Vault {
        try open(with: credential, sealers: .vaultOnly)
    }
}
