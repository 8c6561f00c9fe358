# doc: rules for this area
