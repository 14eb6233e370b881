// The Auth layer: see ../shared/docs/design.md.
