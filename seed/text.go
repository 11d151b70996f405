package seed

// Flavour text for display names and lore. Display names are combined with
// colour codes once, at start-up, so the hot path only picks a string.

var colorPrefixes = []string{
	"§6", "§b", "§c", "§5", "§a", "§e", "§d", "§9", "§3", "§f",
	"§l§5", "§l§6", "§l§c", "§o§b", "§l§e", "§o§7",
}

var weaponNames = []string{
	"Legendarny Miecz", "Fire Blade", "Ostrze Smoka", "Kosa Żniwiarza", "Shadowfang",
	"Szabla Husarska", "Excalibur", "Zguba Creeperów", "Frostmourne", "Miecz Króla",
	"Kieł Wilka", "Stormbreaker", "Gniew Peruna", "Ząb Smoka", "Szczerbiec",
	"Bloodthirster", "Łuk Robin Hooda", "Oko Burzy",
}

var toolNames = []string{
	"Epic Pickaxe", "Kilof Górnika", "Diamentowy Świder", "Złota Łopata", "Szczęśliwy Kilof",
	"Miner's Delight", "Siekiera Drwala", "Motyka Babci", "Wiertło Zagłady", "Lucky Shovel",
	"Kilof Wieliczki", "Excavator 3000", "Wędka Rybaka", "Grabie Ogrodnika",
}

var armorNames = []string{
	"Zbroja Rycerza", "Hełm Husarza", "Dragon Scale", "Pancerz Smoka", "Buty Wędrowca",
	"Aegis", "Skrzydła Anioła", "Tarcza Grunwaldu", "Płaszcz Nocy", "Iron Will",
	"Napierśnik Zawiszy", "Bulwark", "Kolczuga Jagiełły", "Moonwalkers",
}

var bookNames = []string{
	"Księga Zaklęć", "Tome of Power", "Grimoire", "Stara Księga", "Kronika Wawelska",
	"Necronomicon", "Pan Tadeusz", "Spellbook", "Zwój Mędrca",
}

var potionNames = []string{
	"Eliksir Życia", "Potion of Luck", "Napój Bogów", "Wywar Czarownicy", "Nalewka Babuni",
	"Elixir of Haste", "Miód Pitny", "Woda Święcona", "Liquid Courage",
}

var genericNames = []string{
	"Łódź Księżycowa", "Skarb Smoka", "Złoty Zapas", "Magiczny Przedmiot",
	"Pamiątka z Krakowa", "Lucky Charm", "Kamień Filozoficzny", "Prezent od Mikołaja",
	"Rare Loot", "Zapas na Zimę", "Sekretny Składnik", "Święty Graal", "Dar Bogów",
	"Jabłko Niezgody", "Żelazna Rezerwa", "Treasure Chest", "Starter Pack", "Okazja!",
}

var loreLines = []string{
	"§7Wykuty w Krakowie", "§7Forged in the Nether", "§8Należał do króla Bolesława",
	"§cNie sprzedawać!", "§7Limitowana edycja", "§eZdobyty na evencie 2025",
	"Ostry jak brzytwa", "§7Do not eat", "§aZnaleziony w opuszczonej kopalni",
	"§7Crafted by a master smith", "§5Czuć od niego magię", "§7Dropped by the Ender Dragon",
	"Pachnie jak świeży chleb", "§bLegenda głosi, że...", "§7Property of Steve",
	"§6★★★★★", "Użyj z rozwagą", "§7Handmade in Łódź", "§8Seria #042", "Gwarancja: 0 dni",
	"§dDla mojej drużyny", "§7Soulbound? Nope.", "§oZe starego serwera", "§7Ex-admin loot",
	"Zaklęty przy pełni księżyca", "§aFresh from the farm", "§7Pierwszy właściciel: Żaneta",
	"§cUwaga: gryzie", "§9Sezon 7", "§7Najlepsza cena na rynku!",
}

// colored returns every base name behind every colour prefix.
func colored(bases []string) []string {
	out := make([]string, 0, len(bases)*len(colorPrefixes))
	for _, b := range bases {
		for _, c := range colorPrefixes {
			out = append(out, c+b)
		}
	}
	return out
}

var (
	coloredWeapon  = colored(weaponNames)
	coloredTool    = colored(toolNames)
	coloredArmor   = colored(armorNames)
	coloredBook    = colored(bookNames)
	coloredPotion  = colored(potionNames)
	coloredGeneric = colored(genericNames)
)
