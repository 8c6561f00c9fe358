# tools: rules for this area
