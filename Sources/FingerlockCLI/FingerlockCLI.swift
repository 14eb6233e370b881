// The FingerlockCLI layer: see ../shared/docs/design.md.
