"""What the judge and the child both hold: the contract (spec), the wire between them (protocol) and the
reading of a submission into units (loader). Mounted into the jail; imports nothing of the kit but itself."""
