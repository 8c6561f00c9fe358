# tests: rules for this area
