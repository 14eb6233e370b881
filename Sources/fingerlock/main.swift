print("fingerlock")
