# examples: rules for this area
