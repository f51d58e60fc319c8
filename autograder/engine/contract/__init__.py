"""What the judge and the child both hold: the contract (spec), the wire between them (protocol), the
reading of a submission into units (loader), and what the kit notices in it besides its code (noticed). Mounted into the jail; imports nothing of the kit but itself."""
