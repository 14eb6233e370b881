// The Vault layer: see ../shared/docs/design.md.
