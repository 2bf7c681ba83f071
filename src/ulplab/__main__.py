from ulplab.cli.main import run

run()
