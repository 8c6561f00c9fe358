# bench: rules for this area
