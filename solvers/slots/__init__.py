"""Static map/reduce slot configuration: FRESH's fluid model evaluated for every map/reduce split
(`configure`), its event loops (`fluid`), its map phase and reduce queues (`maps`) and its view
of a batch (`work`). Imports NumPy only: no pyomo, SciPy or pyswarms."""
